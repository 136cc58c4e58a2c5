print("sluice-demo")
